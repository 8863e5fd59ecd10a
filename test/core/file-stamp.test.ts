import { describe, expect, it } from 'vitest';
import { sameStamp } from '../../src/core/snapshot.js';

// A rewind brings back a held file over the size cap only when its stamp is the one the prompt's snapshot
// recorded (review of the held change, finding 1); a snapshot from before stamps were recorded cannot tell.
describe('sameStamp', () => {
  const stamp = { mtimeNs: '1796659200123456789', ino: '18446744073709551615' };

  it('is the same file only when both parts are known and equal', () => {
    expect(sameStamp(stamp, { ...stamp })).toBe(true);
    expect(sameStamp(stamp, { ...stamp, mtimeNs: '1796659200123456790' })).toBe(false);
    expect(sameStamp(stamp, { ...stamp, ino: '7' })).toBe(false);
  });

  it('cannot tell (false) when either side has no stamp, as an older snapshot has not', () => {
    expect(sameStamp(undefined, stamp)).toBe(false);
    expect(sameStamp(stamp, undefined)).toBe(false);
    expect(sameStamp({}, {})).toBe(false);
    expect(sameStamp({ mtimeNs: stamp.mtimeNs }, { mtimeNs: stamp.mtimeNs })).toBe(false);
  });
});
