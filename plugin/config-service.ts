// CheckConfig, DiffConfig and Configure of the provider protocol, served by the plugin
// itself: @pulumi/pulumi's provider module (3.248 to at least 3.276) answers CheckConfig
// and DiffConfig with UNIMPLEMENTED and drops Configure's variables, so its gRPC service
// is given these three handlers in place of its own when it is added to the server.
import * as path from "path";
import { hostPool } from "../provider/pool/host-pool";
import type { HostConfig } from "../provider/ssh/host";
import { changedSettings, providerHost, SETTINGS } from "./config";
import { unwrapSecrets, wrapSecretFields } from "./secrets";

type Values = Record<string, unknown>;
type Callback = (err: unknown, response?: unknown) => void;
type Call = { request: any };

/** A module of the copy @pulumi/pulumi runs on: its gRPC and protobuf classes must be the same instances. */
function pulumiDependency(name: string): any {
  const pulumiDir = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
  return require(require.resolve(name, { paths: [pulumiDir] }));
}

const provproto = require("@pulumi/pulumi/proto/provider_pb");
const { Struct } = pulumiDependency("google-protobuf/google/protobuf/struct_pb");

/** The provider's configuration as this process was last configured (undefined: no host). */
let configured: HostConfig | undefined;
export const configuredHost = (): HostConfig | undefined => configured;

const plain = (s: { toJavaScript(): Values } | undefined): Values => (s ? s.toJavaScript() : {});

/** The configuration a ConfigureRequest carries: its args where the engine sends them, else its variables. */
function configurationOf(request: any): Values {
  const args = request.getArgs?.();
  if (args) return args.toJavaScript();
  const out: Values = {};
  request.getVariablesMap().forEach((v: string, k: string) => (out[k] = v));
  return out;
}

const handlers = {
  checkConfig(call: Call, callback: Callback) {
    const { props, secret } = unwrapSecrets(plain(call.request.getNews()));
    const { failures } = providerHost(props);
    const response = new provproto.CheckResponse();
    response.setInputs(Struct.fromJavaScript(wrapSecretFields(SETTINGS, props, secret)));
    response.setFailuresList(
      failures.map((f) => {
        const failure = new provproto.CheckFailure();
        failure.setProperty(f.property);
        failure.setReason(f.reason);
        return failure;
      }),
    );
    callback(undefined, response);
  },

  diffConfig(call: Call, callback: Callback) {
    // a provider's change never replaces anything itself: each resource records the host it
    // was given, and its own diff decides (another login is recorded, another machine replaces)
    const changed = changedSettings(unwrapSecrets(plain(call.request.getOlds())).props, unwrapSecrets(plain(call.request.getNews())).props);
    const response = new provproto.DiffResponse();
    response.setChanges(changed.length ? provproto.DiffResponse.DiffChanges.DIFF_SOME : provproto.DiffResponse.DiffChanges.DIFF_NONE);
    response.setDiffsList(changed);
    callback(undefined, response);
  },

  configure(call: Call, callback: Callback) {
    const { host, failures } = providerHost(unwrapSecrets(configurationOf(call.request)).props);
    if (failures.length) {
      callback(new Error(`the kvm provider's configuration: ${failures.map((f) => f.reason).join("; ")}`));
      return;
    }
    configured = host;
    // dialled now, in the background: each explicit provider of a fleet is its own process,
    // configured before its resources' checks, which come one at a time and would each wait
    if (host) hostPool.dialAhead(host);
    const response = new provproto.ConfigureResponse();
    response.setAcceptsecrets(true);
    response.setAcceptresources(true);
    response.setAcceptoutputs(true);
    callback(undefined, response);
  },
};

/** Has the provider service, when @pulumi/pulumi's main adds it, use the handlers above for configuration. */
export function serveConfiguration(): void {
  const grpc = pulumiDependency("@grpc/grpc-js");
  const addService = grpc.Server.prototype.addService;
  grpc.Server.prototype.addService = function (service: Record<string, unknown>, implementation: object) {
    const served = "configure" in service ? withHandlers(implementation) : implementation;
    return addService.call(this, service, served);
  };
}

function withHandlers(implementation: object): object {
  return new Proxy(implementation, {
    get(target, key, receiver) {
      if (typeof key === "string" && key in handlers) return handlers[key as keyof typeof handlers];
      return Reflect.get(target, key, receiver);
    },
  });
}
