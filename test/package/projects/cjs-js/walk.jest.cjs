// The user's suite under jest (its globals), orc-cli required as CommonJS.
const { Orc, webhooks } = require('orc-cli');
const { startSandbox } = require('orc-cli/testing');
const defineSuite = require('./suite.cjs');

defineSuite({ it, beforeAll, afterAll }, { Orc, webhooks, startSandbox });
