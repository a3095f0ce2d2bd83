/** zod's `z` imported as the package's namespace in the handler build (infra/zod-namespace.ts). */
import { describe, expect, it } from 'vitest';
import { namespaceZodImports } from '../../infra/zod-namespace.js';

describe('namespaceZodImports', () => {
  it.each([
    ['z alone', "import { z } from 'zod';", "import * as z from 'zod';"],
    ['z without a semicolon, double quotes', 'import { z } from "zod"\nconst a = 1;', 'import * as z from "zod";\nconst a = 1;'],
    ['z beside other names', "import { ZodError, z } from 'zod';", "import * as z from 'zod'; import { ZodError } from 'zod';"],
    ['z beside an inline type', "import { type ZodType, z } from 'zod';", "import * as z from 'zod'; import { type ZodType } from 'zod';"],
    ['a type-only import (erased)', "import type { z } from 'zod';", "import type { z } from 'zod';"],
    ['other names only', "import { ZodError } from 'zod';", "import { ZodError } from 'zod';"],
    ['z renamed (left as written)', "import { z as zod } from 'zod';", "import { z as zod } from 'zod';"],
    ['another package', "import { z } from 'zod/mini';", "import { z } from 'zod/mini';"],
  ])('%s', (_case, source, expected) => {
    expect(namespaceZodImports(source)).toBe(expected);
  });

  it('rewrites every import of a module', () => {
    const source = "import { z } from 'zod';\nimport { x } from './x.js';\nimport { ZodError, z as _unused } from 'zod';";
    expect(namespaceZodImports(source)).toBe(
      "import * as z from 'zod';\nimport { x } from './x.js';\nimport { ZodError, z as _unused } from 'zod';",
    );
  });
});
