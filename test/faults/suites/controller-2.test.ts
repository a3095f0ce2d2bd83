/** The controller-mode fault suite, slice 2 of 4 of its seeds (test/faults/suite.ts). */
import { faultSuite } from '../suite.js';

faultSuite('controller', 1, 4);
