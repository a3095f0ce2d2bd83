/** The attacher-mode fault suite (kcm decides what is attached), slice 1 of 2 of its seeds (test/faults/suite.ts). */
import { faultSuite } from '../suite.js';

faultSuite('attacher', 0, 2);
