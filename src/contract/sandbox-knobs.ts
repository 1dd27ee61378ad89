// The sandbox's knobs (CONTRACT.md, "The sandbox's own knobs"), declared once: the flag of `orc sandbox
// start` (its value name, help and bounds), the default the sandbox runs with, and what a background start
// passes on. The command's flags, the sandbox's defaults, the launcher and `orc help sandbox` read them here.

export interface Knob {
  /** The flag's value name in help (`--stage-ms <ms>`). */
  value: string;
  description: string;
  default: number | string;
  min?: number;
  max?: number;
  hidden?: boolean;
}

export const KNOBS = {
  host: {
    value: 'host',
    description: 'address to listen on (loopback unless you mean otherwise)',
    default: '127.0.0.1',
  },
  port: { value: 'port', description: 'port to listen on; 0 picks a free one', default: 4010, min: 0, max: 65535 },
  stageMs: {
    value: 'ms',
    description: 'how long one pipeline stage takes',
    default: 4000,
    min: 1,
    max: 31_536_000_000,
  }, // a year: a longer stage is never a test
  signedUrlTtl: {
    value: 's',
    description: 'lifetime of signed artifact URLs, in seconds',
    default: 300,
    min: 1,
    max: 315_360_000,
  }, // ten years: an expiry a date can show
  retryBaseMs: {
    value: 'ms',
    description: 'first webhook retry delay; doubles each attempt',
    default: 1000,
    min: 1,
    max: 86_400_000,
  },
  rateLimit: { value: 'n', description: 'requests per second per key; 0 for no limit', default: 100, min: 0 },
  seed: {
    value: 'n',
    description: 'varies the generated specs and scores; the same seed gives the same ones',
    default: 0,
    min: 0,
  },
  ipaMib: {
    value: 'n',
    description: 'size of the generated ipa, in MiB (streamed, never held in memory)',
    default: 20,
    min: 1,
    max: 4096,
  },
  journalSize: {
    value: 'n',
    description: 'how many requests and delivery attempts `orc sandbox logs` keeps; 0 keeps none',
    default: 1000,
    min: 0,
    max: 1_000_000,
  },
  keepDeliveries: {
    value: 'n',
    description:
      'how many webhook deliveries the sandbox keeps (the newest); older ones expire, as do any older than 30 days',
    default: 250_000,
    min: 1,
    max: 100_000_000,
  },
  keepaliveMs: { value: 'ms', description: 'SSE keep-alive interval', default: 15_000, min: 10, hidden: true },
} as const satisfies Record<string, Knob>;

export type KnobName = keyof typeof KNOBS;
export const KNOB_NAMES = Object.keys(KNOBS) as KnobName[];
