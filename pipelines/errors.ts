/** The one base class of the errors a command reports as one line (`error: <message>`, exit 1). */
export class CliError extends Error {}
