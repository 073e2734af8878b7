/** The `--config` flag of this command line: set by the CLI before a command runs (kept apart so that `--help` loads no schema). */
let flag: string | undefined;
export const setConfigFlag = (file: string | undefined): void => {
  flag = file;
};
export const configFlag = (): string | undefined => flag;
