// How a failure is told to a script (src/cli/report.ts): each kind of problem has its type and code under
// --json, whichever layer raised it.
import { describe, expect, it } from 'vitest';
import { ClientSettingError } from '../../src/api/errors.js';
import { errorReport } from '../../src/cli/report.js';
import { ConfigError } from '../../src/exit/errors.js';

describe('errorReport', () => {
  it("a setting of the client's own it cannot use (a proxy variable, a CA file) is a configuration error, exit 4, as orc's own", () => {
    const own = errorReport(new ConfigError('the config file is not JSON'));
    const client = errorReport(
      new ClientSettingError('HTTPS_PROXY is not a proxy URL: "x"', 'Set it to http://host:port.'),
    );
    expect(client).toMatchObject({ type: own.type, code: own.code, exit_code: 4, hint: 'Set it to http://host:port.' });
    expect(client.code).toBe('configuration');
  });
});
