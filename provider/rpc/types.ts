// libvirt remote protocol structs (remote_protocol.x, virnetprotocol.x) as codecs.
import { array, Codec, fixedOpaque, hyper, Infer, int, optional, string, struct, uhyper, uint, union } from "./codec";

export const REMOTE_STRING_MAX = 4194304;
export const UUID_BUFLEN = 16;

export const nonnullString = string(REMOTE_STRING_MAX);
export const remoteString = optional(nonnullString);
export const uuid = fixedOpaque(UUID_BUFLEN);

export const domainRef = struct({ name: nonnullString, uuid, id: int });
export const networkRef = struct({ name: nonnullString, uuid });
export const poolRef = struct({ name: nonnullString, uuid });
export const volumeRef = struct({ pool: nonnullString, name: nonnullString, key: nonnullString });

export const snapshotRef = struct({ name: nonnullString, dom: domainRef });

export type DomainRef = Infer<typeof domainRef>;
export type SnapshotRef = Infer<typeof snapshotRef>;
export type NetworkRef = Infer<typeof networkRef>;
export type PoolRef = Infer<typeof poolRef>;
export type VolumeRef = Infer<typeof volumeRef>;

/** remote_error ≡ virNetMessageError: all 11 fields. */
export const remoteError = struct({
  code: int,
  domain: int,
  message: remoteString,
  level: int,
  dom: optional(domainRef),
  str1: remoteString,
  str2: remoteString,
  str3: remoteString,
  int1: int,
  int2: int,
  net: optional(networkRef),
});
export type RemoteError = Infer<typeof remoteError>;

export const domainIpAddr = struct({ type: int, addr: nonnullString, prefix: uint });
export const domainInterface = struct({ name: nonnullString, hwaddr: remoteString, addrs: array(domainIpAddr, 2048) });
export type DomainInterface = Infer<typeof domainInterface>;

export const dhcpLease = struct({
  iface: nonnullString,
  expirytime: hyper,
  type: int,
  mac: remoteString,
  iaid: remoteString,
  ipaddr: nonnullString,
  prefix: uint,
  hostname: remoteString,
  clientid: remoteString,
});
export type DhcpLease = Infer<typeof dhcpLease>;

/** virNetStreamHole: the payload of a STREAM_HOLE packet. */
export const streamHole: Codec<{ length: bigint; flags: number }> = struct({ length: hyper, flags: uint });

/**
 * A typed parameter (remote_typed_param): a field name and a value whose type the union names
 * (virTypedParameterType: 1 int, 2 uint, 3 llong, 4 ullong, 6 boolean, 7 string). The double
 * arm (5) is not spoken: no call of ours passes or reads one.
 */
export const typedParam = struct({
  field: nonnullString,
  value: union({ 1: int, 2: uint, 3: hyper, 4: uhyper, 6: int, 7: nonnullString }),
});
export type TypedParam = Infer<typeof typedParam>;
