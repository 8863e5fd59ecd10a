// Hook processes that tests start inherit this: no hook host outlives a test (see hooks/relay-protocol.ts),
// except where a test asks for one (test/e2e/hook-host.test.ts).
process.env.CHECKPOINT_HOOK_HOST = '0';
