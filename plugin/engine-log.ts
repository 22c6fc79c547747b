// The Pulumi CLI hides what a resource plugin writes on stderr (it shows it only when the
// plugin crashes), so the plugin's log lines and warnings go to the engine's log: they land
// in the run's Diagnostics, as the TypeScript classes' lines do from the dynamic provider.
import * as pulumi from "@pulumi/pulumi";
import { setLogSink } from "../provider/log";

/** The engine's address: the first argument that is not one of the CLI's logging flags. */
function engineAddressOf(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--tracing") i++;
    else if (args[i] !== "--logtostderr" && !args[i].startsWith("-v=")) return args[i];
  }
  return undefined;
}

export function logToEngine(args: string[]): void {
  const engineAddress = engineAddressOf(args);
  if (!engineAddress) return;
  // the SDK's log functions speak to the engine its settings name; the plugin serves no program
  pulumi.runtime.resetOptions("", "", -1, engineAddress, "", false, "");
  setLogSink((line, severity) => void (severity === "warning" ? pulumi.log.warn(line) : pulumi.log.info(line)));
}
