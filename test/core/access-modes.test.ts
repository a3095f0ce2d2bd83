import { describe, expect, it } from 'vitest';
import { accessModesOf, allowsMultiAttach } from '../../lambda/core/access-modes.js';
import type { AccessMode } from '../../lambda/core/types.js';

describe('access modes', () => {
  it('keeps known modes in a fixed order and drops unknown ones', () => {
    expect(accessModesOf(['ReadWriteMany', 'Bogus', 'ReadWriteOnce'])).toEqual(['ReadWriteOnce', 'ReadWriteMany']);
    expect(accessModesOf(null)).toEqual([]);
    expect(accessModesOf(undefined)).toEqual([]);
  });

  it.each<[string, AccessMode[], boolean]>([
    ['RWO only is exclusive', ['ReadWriteOnce'], false],
    ['RWOP only is exclusive', ['ReadWriteOncePod'], false],
    ['RWO and RWOP are exclusive', ['ReadWriteOnce', 'ReadWriteOncePod'], false],
    ['RWO with RWX is exclusive (upstream isMultiAttachAllowed)', ['ReadWriteOnce', 'ReadWriteMany'], false],
    ['no access modes is exclusive (we would rather not try)', [], false],
    ['RWX allows multi-attach', ['ReadWriteMany'], true],
    ['ROX allows multi-attach', ['ReadOnlyMany'], true],
  ])('%s', (_name, modes, multi) => {
    expect(allowsMultiAttach(modes)).toBe(multi);
  });
});
