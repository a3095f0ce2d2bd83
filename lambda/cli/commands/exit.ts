/** The exit codes the help documents (args.ts): nothing else is returned. */
export const EXIT = { converged: 0, error: 1, notConverged: 2 } as const;
