// The provider's log: one line per event, to stderr unless a sink is set (the plugin sets
// the engine's log, tests set their own).
// Level from PULUMI_KVM_LOG: 0 off, 1 one line per RPC and progress, 2 also XML.

export type LogSeverity = "info" | "warning";
export type LogSink = (line: string, severity: LogSeverity) => void;

const toStderr: LogSink = (line) => process.stderr.write(line + "\n");
let sink: LogSink = toStderr;

export function setLogSink(next: LogSink | undefined): void {
  sink = next ?? toStderr;
}

export function logLevel(): number {
  const v = Number(process.env.PULUMI_KVM_LOG ?? "0");
  return Number.isFinite(v) ? v : 0;
}

export function log(line: string, level = 1): void {
  if (logLevel() >= level) sink(`pulumi-kvm ${line}`, "info");
}

/** Always written: warnings users need to see whatever the level. */
export function warn(line: string): void {
  sink(`pulumi-kvm warning: ${line}`, "warning");
}
