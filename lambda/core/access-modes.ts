/**
 * Exclusive vs multi-attach. A volume is exclusive when any of its access modes is
 * ReadWriteOnce or ReadWriteOncePod (so "only RWO/RWOP" is exclusive, and so is a mix such as
 * RWO + RWX, as upstream's isMultiAttachAllowed decides). A PV without access modes is treated as
 * exclusive too: upstream lets the attacher fail there, we would rather not try.
 */
import type { AccessMode } from './types.js';

const KNOWN: readonly AccessMode[] = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];

export function accessModesOf(modes: readonly string[] | null | undefined): AccessMode[] {
  return KNOWN.filter((mode) => (modes ?? []).includes(mode));
}

export function allowsMultiAttach(modes: readonly AccessMode[]): boolean {
  return modes.length > 0 && !modes.some((mode) => mode === 'ReadWriteOnce' || mode === 'ReadWriteOncePod');
}
