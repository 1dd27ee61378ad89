// The version, set at build time (esbuild `define`, vitest `define`).
declare const __ORC_VERSION__: string;
export const VERSION: string = typeof __ORC_VERSION__ === 'string' ? __ORC_VERSION__ : '0.0.0-dev';
