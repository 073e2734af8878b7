/**
 * The one base class of the errors that are the user's to fix (a bad flag, file, key or setting; a
 * server that is not there): the CLI prints their message as one line, `error: <message>`, and
 * exits 1, without a stack trace. Anything else is a bug, reported as unexpected.
 */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
