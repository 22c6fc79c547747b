// A subcommand's arguments read the one way every subcommand does: -h prints its help
// (exit 0), a usage error is named with a pointer to the help (exit 2).

export class UsageError extends Error {}

/** util.parseArgs reports an unknown option or a missing value as a TypeError with an ERR_PARSE_ARGS_ code. */
const isParseArgsError = (err: unknown): err is TypeError => err instanceof TypeError && /^ERR_PARSE_ARGS_/.test(String((err as { code?: unknown }).code));

/** The plan `parse` makes of the arguments, or the exit code of a usage error (or of -h). */
export function planOrExit<T>(command: string, usage: string, parse: () => T): T | number {
  try {
    return parse();
  } catch (err) {
    if (!(err instanceof UsageError) && !isParseArgsError(err)) throw err;
    if (!err.message) {
      process.stdout.write(usage);
      return 0;
    }
    process.stderr.write(`pulumi-kvm ${command}: ${err.message}\n(pulumi-kvm ${command} --help for the options)\n`);
    return 2;
  }
}
