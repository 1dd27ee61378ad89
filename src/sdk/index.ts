// orc as a library (`import { Orc, webhooks } from 'orc-cli'`): the client, webhook signatures, the errors
// it raises and the contract's shapes. It loads no terminal code (docs/sdk/client.md says what it loads).
export {
  Orc,
  WaitTimeoutError,
  type OrcOptions,
  type RunCreate,
  type AppSpecPatch,
  type WaitOptions,
} from './client.js';
export type { Runs, Gates, Spec, Artifacts, Webhooks } from './client.js';
export {
  webhooks,
  verify,
  unwrap,
  WebhookVerificationError,
  type WebhookFailure,
  type SignatureSource,
  type VerifyOptions,
} from './webhooks.js';
export {
  ApiError,
  BadRequestError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  RateLimitError,
  InternalServerError,
  ApiConnectionError,
  ClientSettingError,
  ClientClosedError,
  InvalidIdError,
  NotAnEventStreamError,
  RetryLaterError,
  StreamLostError,
  UnexpectedResponseError,
  UnsafeRequestError,
  UntrustedCertificateError,
  ValidationError,
} from '../api/errors.js';
export { Problem as OrcError } from '../lib/problem.js';
export type { PullOutcome, PulledFile, FailedFile } from '../artifacts/pull.js';
export { ConfigError, RefusedError, InterruptedError } from '../exit/errors.js';
export { DiskError } from '../artifacts/disk.js';
export type { SandboxAdmin } from '../api/resources/sandbox.js';
export type {
  AppSpec,
  AppSpecInput,
  Artifact,
  ArtifactEntry,
  ArtifactFile,
  Delivery,
  Event,
  Gate,
  GateDecision,
  GateHistoryEntry,
  IdeaInput,
  Page,
  Run,
  Scorecard,
  Webhook,
  WebhookCreateParams,
  WebhookWithSecret,
} from '../contract/schemas.js';
export type { ArtifactKind, EventKind, GateName, RunStatus } from '../contract/events.js';
export type * from '../contract/sandbox-control.js';
