// Hook processes that tests start inherit this: no hook host outlives a test (see hooks/relay-protocol.ts),
// except where a test asks for one (test/e2e/hook-host.test.ts).
process.env.CHECKPOINT_HOOK_HOST = '0';

// The code under test runs as the whole CLI, the server and the hooks do, which hold the secret detector
// and offer its path redaction to the drift check (core/path-redaction.ts; the short path's bundle, which
// does not, is tested through its process in test/e2e/cli-short-path.test.ts).
import { offerDetectorPathRedaction } from '../src/core/path-redaction-offer.js';

offerDetectorPathRedaction();
