// The provider's log: one line per event, to stderr unless a sink is set (tests set one).
// Level from PULUMI_KVM_LOG: 0 off, 1 one line per RPC and progress, 2 also XML.

export type LogSink = (line: string) => void;

let sink: LogSink = (line) => process.stderr.write(line + "\n");

export function setLogSink(next: LogSink | undefined): void {
  sink = next ?? ((line) => process.stderr.write(line + "\n"));
}

export function logLevel(): number {
  const v = Number(process.env.PULUMI_KVM_LOG ?? "0");
  return Number.isFinite(v) ? v : 0;
}

export function log(line: string, level = 1): void {
  if (logLevel() >= level) sink(`pulumi-kvm ${line}`);
}

/** Always written: warnings users need to see whatever the level. */
export function warn(line: string): void {
  sink(`pulumi-kvm warning: ${line}`);
}
