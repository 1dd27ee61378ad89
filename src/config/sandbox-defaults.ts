// Where the built-in `sandbox` profile looks when no sandbox is recorded (its key: SANDBOX_DEFAULT_KEY).
export const DEFAULT_SANDBOX_PORT = 4010;
export const DEFAULT_SANDBOX_URL = `http://127.0.0.1:${DEFAULT_SANDBOX_PORT}`;
