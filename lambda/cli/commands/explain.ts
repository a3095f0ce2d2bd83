/** `explain <object>`: the chain of facts for each of its volumes and one sentence. */
import type { Controller } from '../../composition.js';
import { formatExplanation } from '../explain/format.js';
import { loadAndExplain } from '../explain/load.js';
import type { ExplainTarget } from '../explain/types.js';
import type { Io } from '../io.js';
import { EXIT } from './exit.js';

export async function runExplain(controller: Controller, target: ExplainTarget, options: { json: boolean }, io: Io): Promise<number> {
  const explained = await loadAndExplain(controller, target);
  io.out(options.json ? JSON.stringify(explained, null, 2) : formatExplanation(explained));
  return explained.attached ? EXIT.converged : EXIT.notConverged;
}
