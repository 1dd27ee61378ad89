// Markdown files imported as text (`import text from '…/x.md?raw'`): vitest reads them so natively, and the
// build's raw plugin (scripts/build.mjs) bundles them the same way.
declare module '*.md?raw' {
  const text: string;
  export default text;
}
