/** Exit codes as `diff` and `kubectl diff` have them; src/cli.ts exits with `error` on a UserError of diff. */
export const DIFF_EXIT = { same: 0, differs: 1, error: 2 } as const;
