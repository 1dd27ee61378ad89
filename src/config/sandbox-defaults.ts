// Where the built-in `sandbox` profile looks when no sandbox is recorded, and the key it uses.
import { SANDBOX_DEFAULT_KEY } from '../contract/keys.js';

export const DEFAULT_SANDBOX_PORT = 4010;
export const DEFAULT_SANDBOX_URL = `http://127.0.0.1:${DEFAULT_SANDBOX_PORT}`;
export const DEFAULT_SANDBOX_KEY = SANDBOX_DEFAULT_KEY;
