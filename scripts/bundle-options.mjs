// What the two builds of orc's code share: the npm package's (scripts/build.mjs: ESM chunks loaded on demand)
// and the standalone executable's (scripts/standalone.mjs: one CommonJS script, as Node's single executable
// applications take it on Node 24).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';

/** Bundled too, but for the OS keychain's native module, which nothing in JavaScript can replace. */
export const EXTERNAL = ['@napi-rs/keyring'];

export const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

export function codeOptions({ standalone }) {
  return {
    bundle: true,
    platform: 'node',
    plugins: [
      {
        name: 'externals',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) =>
            EXTERNAL.some((p) => args.path === p || args.path.startsWith(`${p}/`))
              ? { path: args.path, external: true }
              : undefined,
          );
        },
      },
      {
        // orc's own `import { readFileSync } from 'node:fs'` becomes `const { readFileSync } =
        // process.getBuiltinModule('node:fs')`: an ESM import of a built-in walks all its exports, and their
        // lazy getters load more of Node (node:fs's `promises` brings file streams and readline, node:http's
        // WebSocket brings undici): milliseconds at every command, for names orc never uses.
        name: 'builtins',
        setup(b) {
          b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => ({
            contents: builtinImports(readFileSync(args.path, 'utf8')),
            loader: 'ts',
          }));
          // The MCP SDK's too. Its task store takes `randomBytes` from node:crypto when it loads, for the ids
          // of tasks it may never make: crypto (web crypto, X.509 and the rest, ~17 modules of Node's) is
          // taken when an id is first made instead.
          b.onLoad({ filter: /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/].*\.js$/ }, (args) => {
            let text = readFileSync(args.path, 'utf8');
            const eager = "import { randomBytes } from 'node:crypto';";
            if (/[\\/]stores[\\/]in-memory\.js$/.test(args.path)) {
              if (!text.includes(eager))
                throw new Error(
                  "the MCP SDK's task store no longer imports randomBytes as build expects; check bundle-options.mjs",
                );
              text = text.replace(
                eager,
                "const randomBytes = (n) => globalThis.process.getBuiltinModule('node:crypto').randomBytes(n);",
              );
            }
            return { contents: builtinImports(text), loader: 'js' };
          });
        },
      },
      {
        // commander requires node:child_process (and with it net, dgram, streams) when it loads, for the
        // executable subcommands orc does not have: taken when first used instead.
        name: 'commander-spawn',
        setup(b) {
          b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
            const text = readFileSync(args.path, 'utf8');
            const eager = "const childProcess = require('node:child_process');";
            if (!text.includes(eager))
              throw new Error(
                'commander no longer requires node:child_process as build expects; check bundle-options.mjs',
              );
            return {
              contents: text.replace(
                eager,
                "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };",
              ),
              loader: 'js',
            };
          });
        },
      },
      {
        // string-width makes a grapheme segmenter (ICU's data) and compiles four Unicode-property patterns
        // with the v flag when it loads, `^\p{RGI_Emoji}$` the costliest (docs/figures.md): a cost for every
        // command that draws a table or a progress line, though most never meet a character outside the few
        // src/ui/width.ts counts itself. Made when string-width is first called instead.
        name: 'string-width-lazy',
        setup(b) {
          const ours = resolvePath(new URL('..', import.meta.url).pathname, 'node_modules/string-width/index.js'); // (not the older copies other packages carry)
          b.onLoad({ filter: /[\\/]string-width[\\/]index\.js$/ }, (args) => {
            if (args.path !== ours) return undefined;
            let text = readFileSync(args.path, 'utf8');
            const eager = [
              'const segmenter = new Intl.Segmenter();',
              'const visibleCharacterRegex = /[^\\p{Default_Ignorable_Code_Point}\\p{Control}\\p{Format}\\p{Nonspacing_Mark}\\p{Enclosing_Mark}\\p{Surrogate}]/v;',
              'const spacingMarkRegex = /\\p{Spacing_Mark}/v;',
              'const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;',
              'const extendedPictographicRegex = /\\p{Extended_Pictographic}/gu;',
              'export default function stringWidth(input, options = {}) {',
            ];
            for (const line of eager)
              if (!text.includes(line))
                throw new Error(`string-width no longer has \`${line}\` as build expects; check bundle-options.mjs`);
            const made = eager.slice(0, -1).map((line) => line.replace(/^const /, ''));
            for (const line of eager.slice(0, -1)) text = text.replace(line, '');
            text = text.replace(
              eager.at(-1),
              `let segmenter, visibleCharacterRegex, spacingMarkRegex, rgiEmojiRegex, extendedPictographicRegex;\nfunction makeTables() {\n${made.join('\n')}\n}\n${eager.at(-1)}\n\tif (segmenter === undefined) makeTables();`,
            );
            return { contents: text, loader: 'js' };
          });
        },
      },
      {
        // The MCP SDK's server imports at load what orc's server never uses there: Ajv (orc hands it
        // a validator that loads Ajv when a person is first asked, src/mcp/server.ts), and zod 3 with its JSON
        // Schema converter (orc's schemas are zod 4, converted by zod itself). Each is left out of the bundle
        // for a stub that says so if ever called.
        name: 'mcp-sdk-lean',
        setup(b) {
          const stubs = [
            [
              /[\\/]sdk[\\/]dist[\\/]esm[\\/]server[\\/]index\.js$/,
              '../validation/ajv-provider.js',
              "export class AjvJsonSchemaValidator { constructor() { throw new Error('orc gives the MCP server its own JSON Schema validator'); } }",
            ],
            [
              /[\\/]sdk[\\/]dist[\\/]esm[\\/]server[\\/]zod-json-schema-compat\.js$/,
              'zod-to-json-schema',
              "export function zodToJsonSchema() { throw new Error('orc converts only zod 4 schemas'); }",
            ],
            [
              /[\\/]sdk[\\/]dist[\\/]esm[\\/]server[\\/]zod-compat\.js$/,
              'zod/v3',
              "export function object() { throw new Error('orc uses only zod 4 schemas'); }",
            ],
          ];
          b.onResolve({ filter: /^(\.\.\/validation\/ajv-provider\.js|zod-to-json-schema|zod\/v3)$/ }, (args) => {
            const stub = stubs.findIndex(([importer, path]) => path === args.path && importer.test(args.importer));
            return stub === -1 ? undefined : { path: String(stub), namespace: 'mcp-sdk-stub' };
          });
          b.onLoad({ filter: /.*/, namespace: 'mcp-sdk-stub' }, (args) => ({
            contents: stubs[Number(args.path)][2],
            loader: 'js',
          }));
        },
      },
      {
        // `import text from './x.md?raw'`: the file's text, as vitest reads it (the help topics' prose).
        name: 'raw',
        setup(b) {
          b.onResolve({ filter: /\?raw$/ }, (args) => ({
            path: resolvePath(args.resolveDir, args.path.slice(0, -4)),
            namespace: 'raw',
          }));
          b.onLoad({ filter: /.*/, namespace: 'raw' }, (args) => ({
            contents: readFileSync(args.path, 'utf8'),
            loader: 'text',
          }));
        },
      },
    ],
    define: { __ORC_VERSION__: JSON.stringify(pkg.version), __ORC_STANDALONE__: String(standalone) },
    metafile: true,
    logLevel: 'warning',
  };
}

/** Static imports of Node's built-in modules (but node:sqlite, whose absence start.ts explains) as
 * process.getBuiltinModule calls; type-only imports and specifiers are left to TypeScript. */
export function builtinImports(source) {
  return source.replace(/^import (?!type )([^'";]+?) from '(node:(?!sqlite)[a-z_/]+)';$/gm, (all, clause, id) => {
    const get = `globalThis.process.getBuiltinModule('${id}')`; // (globalThis: the clause may name it `process`)
    const ns = /^\* as (\w+)$/.exec(clause.trim());
    if (ns) return `const ${ns[1]} = ${get};`;
    const m = /^(?:(\w+)\s*,\s*)?\{([^}]*)\}$/s.exec(clause.trim());
    const def = m ? m[1] : /^\w+$/.test(clause.trim()) ? clause.trim() : null;
    if (!m && !def) return all;
    const names = (m ? m[2] : '')
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x && !x.startsWith('type '))
      .map((x) => x.replace(/\s+as\s+/, ': '));
    return (
      [def ? `const ${def} = ${get};` : '', names.length ? `const { ${names.join(', ')} } = ${get};` : '']
        .filter(Boolean)
        .join(' ') || ''
    );
  });
}

/** The licences of the packages inside the bundle, which their terms ask to travel with it. */
export function writeNotices(inputs, file) {
  const dirs = new Set();
  for (const input of inputs) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) dirs.add(m[1]);
  }
  const parts = [];
  for (const dir of [...dirs].sort()) {
    const meta = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8'));
    const licence = readdirSync(dir).find((f) => /^(licen[cs]e|copying)/i.test(f));
    parts.push(
      `${meta.name}@${meta.version} (${meta.license ?? 'see below'})\n\n${licence ? readFileSync(`${dir}/${licence}`, 'utf8').trim() : '(no licence file in the package)'}\n`,
    );
  }
  writeFileSync(
    file,
    `orc bundles the following packages, under their own licences.\n\n${parts.join(`\n${'-'.repeat(72)}\n\n`)}`,
  );
}
