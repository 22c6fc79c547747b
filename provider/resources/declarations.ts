// Every kind's declaration, keyed by kind (a kind without one is a compile error): the
// source of the docs' tables and of the provider plugin's schema.
import type { Kind } from "../kinds";
import { domainDeclaration } from "./domain-properties";
import { imageDeclaration } from "./image-properties";
import { networkDeclaration } from "./network-properties";
import { networkFilterDeclaration } from "./network-filter-properties";
import { Declaration } from "./properties";
import { snapshotDeclaration } from "./snapshot-properties";
import { storagePoolDeclaration } from "./storage-pool-properties";
import { volumeDeclaration } from "./volume-properties";

export const DECLARATIONS: { readonly [K in Kind]: Declaration<any, any> } = {
  Image: imageDeclaration,
  Volume: volumeDeclaration,
  Domain: domainDeclaration,
  StoragePool: storagePoolDeclaration,
  Network: networkDeclaration,
  Snapshot: snapshotDeclaration,
  NetworkFilter: networkFilterDeclaration,
};
