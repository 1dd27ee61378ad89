// The entry of the standalone executable (Node's single executable application, built by
// scripts/standalone.mjs): Node and orc in one file, so there is no Node to check and no launcher to find.
import { main } from './main.js';

void main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`orc: unexpected error: ${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});
