/** The attacher-mode fault suite (kcm decides what is attached), slice 2 of 2 of its seeds (test/faults/suite.ts). */
import { faultSuite } from '../suite.js';

faultSuite('attacher', 1, 2);
