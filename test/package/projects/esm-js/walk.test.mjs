// The user's suite under node:test, orc-cli imported as an ES module.
import { after, before, it } from 'node:test';
import { createRequire } from 'node:module';
import { Orc, webhooks } from 'orc-cli';
import { startSandbox } from 'orc-cli/testing';

const defineSuite = createRequire(import.meta.url)('./suite.cjs');
defineSuite({ it, beforeAll: before, afterAll: after }, { Orc, webhooks, startSandbox });
