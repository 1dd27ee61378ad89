// Files that ship beside the code: jq's WebAssembly and the web console's page. In the npm package they are
// files in dist/ (found from the chunk that asks: dist/chunks/…); in the standalone executable they are
// assets inside it (node:sea). From a checkout running src/ (the tests), null: callers fall back.
declare const __ORC_STANDALONE__: boolean | undefined;

/** True in the standalone executable (Node's single executable application), set at build time. */
export const STANDALONE: boolean = typeof __ORC_STANDALONE__ === 'boolean' && __ORC_STANDALONE__;

/** An asset's bytes (`jq.wasm`, `console/index.html`, …), or null when this copy of orc has none. */
export function asset(name: string): Buffer | null {
  if (STANDALONE) {
    const sea = process.getBuiltinModule('node:sea') as typeof import('node:sea');
    try {
      return Buffer.from(sea.getAsset(name));
    } catch {
      return null;
    }
  }
  const fs = process.getBuiltinModule('node:fs') as typeof import('node:fs');
  try {
    return fs.readFileSync(new URL(`../${name}`, import.meta.url));
  } catch {
    return null;
  }
}

/** The names of the assets under a folder (`console/assets/`), for the standalone executable; null elsewhere. */
export function assetNames(prefix: string): string[] | null {
  if (!STANDALONE) return null;
  const sea = process.getBuiltinModule('node:sea') as typeof import('node:sea');
  return sea
    .getAssetKeys()
    .filter((k) => k.startsWith(prefix))
    .map((k) => k.slice(prefix.length));
}
