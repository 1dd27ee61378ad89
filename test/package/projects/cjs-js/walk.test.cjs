// The user's suite under node:test, orc-cli required as CommonJS.
const { after, before, it } = require('node:test');
const { Orc, webhooks } = require('orc-cli');
const { startSandbox } = require('orc-cli/testing');
const defineSuite = require('./suite.cjs');

defineSuite({ it, beforeAll: before, afterAll: after }, { Orc, webhooks, startSandbox });
