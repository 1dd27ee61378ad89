// A CommonJS package loaded with `await import()`: Node's loader names its exports, but esbuild's chunk of it
// (the build bundles every package) has only a default, the whole module.exports. Either way, the exports.
export function cjs<T extends object>(loaded: T): T {
  const keys = Object.keys(loaded);
  return keys.length === 1 && keys[0] === 'default' ? (loaded as { default: T }).default : loaded;
}
