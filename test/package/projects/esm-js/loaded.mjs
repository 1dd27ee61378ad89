// What importing the client loads: the URL of every module Node loads from `import('orc-cli')` on, as its
// loader hooks see them, printed as JSON (the package test names what each holds).
import { registerHooks } from 'node:module';

const loaded = [];
registerHooks({
  load(url, context, next) {
    loaded.push(url);
    return next(url, context);
  },
});
const { Orc, webhooks, WebhookVerificationError } = await import('orc-cli');
const orc = new Orc({ apiKey: 'sk_test_0000000000000000', baseUrl: 'http://127.0.0.1:9' });
try {
  webhooks.verify('{}', 't=1,v1=00', 'whsec_x');
} catch (err) {
  if (!(err instanceof WebhookVerificationError)) throw err;
}
await orc.close();
process.stdout.write(JSON.stringify(loaded));
