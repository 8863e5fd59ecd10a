import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { entrySettings } from '../../src/store/hook-settings.js';
import { relayDisabled } from '../../src/store/relay-socket.js';
import { codeCacheBase, defaultStoreBase } from '../../src/store/store-base.js';
import { tempDir } from '../helpers/fixtures.js';

// The hooks' entry tells its few settings from the environment alone (store/hook-settings.ts); whatever
// it tells must be what the settings registry says, and where it cannot tell, it says so.

/** What readSettings decides for the same settings. */
const registry = (env: NodeJS.ProcessEnv) => ({
  storeBase: defaultStoreBase(env),
  isRelayOn: !relayDisabled(env),
  isCodeCacheOn: codeCacheBase(env) !== null,
});

function userWith(config: string | null): NodeJS.ProcessEnv {
  const home = tempDir('hook-settings-');
  if (config !== null) {
    mkdirSync(path.join(home, '.config', 'claude-checkpoint'), { recursive: true });
    writeFileSync(path.join(home, '.config', 'claude-checkpoint', 'config.json'), config);
  }
  return { HOME: home };
}

describe('the settings the hooks entry reads from the environment alone', () => {
  it.each([
    ['no settings at all', null, {}],
    ['the store named by CHECKPOINT_STORE_DIR', null, { CHECKPOINT_STORE_DIR: '/srv/store/../state/' }],
    ['the store in XDG_STATE_HOME', null, { XDG_STATE_HOME: ' /var/state ' }],
    ['the relay turned on in words', null, { CHECKPOINT_HOOK_RELAY: ' Yes ' }],
    ['the relay off', null, { CHECKPOINT_HOOK_RELAY: '0' }],
    ['the relay off in words', null, { CHECKPOINT_HOOK_RELAY: 'OFF' }],
    ['the code cache off', null, { CHECKPOINT_HOOK_CODE_CACHE: 'false' }],
    ['a settings file about other things', '{"snapshotMaxCount": 20, "storeDir": null}', {}],
    ['an empty CHECKPOINT_STORE_DIR', null, { CHECKPOINT_STORE_DIR: '  ' }],
  ])('%s: told, and the same as the registry', (_, config, extra) => {
    const env = { ...userWith(config), ...extra };
    expect(entrySettings(env)).toEqual(registry(env));
  });

  it.each([
    ['a wrong relay value', null, { CHECKPOINT_HOOK_RELAY: 'maybe' }],
    ['a wrong code cache value', null, { CHECKPOINT_HOOK_CODE_CACHE: '2' }],
    ['a relative store folder', null, { CHECKPOINT_STORE_DIR: 'store' }],
    ['the relay set in the settings file', '{"hookRelay": false}', {}],
    ['the store set in the settings file', '{"storeDir": "/elsewhere"}', {}],
    ['the code cache set in the settings file', '{"hookCodeCache": true}', {}],
    ['a settings file that is not JSON', '{"storeDir": ', {}],
    ['a settings file that is not an object', '[1]', {}],
    ['a settings file too large to read', `{"a": "${'x'.repeat(70_000)}"}`, {}],
  ])('%s: left to the registry', (_, config, extra) => {
    const env = { ...userWith(config), ...extra };
    expect(entrySettings(env)).toBeNull();
  });

  it('leaves the registry the home folder only the system knows', () => {
    expect(entrySettings({ HOME: ' ' })).toBeNull();
    const named = { HOME: '', CHECKPOINT_CONFIG_DIR: tempDir(), XDG_STATE_HOME: '/s' };
    expect(entrySettings(named)).toEqual(registry(named));
  });
});
