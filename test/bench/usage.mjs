// Preloaded (node --import) into a measured process: at exit, its CPU time and peak memory go to a file.
import { writeFileSync } from 'node:fs';

const file = process.env.ORC_BENCH_USAGE;
const started = performance.now();
process.on('exit', () => {
  if (!file) return;
  const u = process.resourceUsage();
  writeFileSync(
    file,
    JSON.stringify({
      cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000,
      maxRssMb: u.maxRSS / 1024,
      wallMs: performance.now() - started,
    }),
  );
});
