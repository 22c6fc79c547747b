#!/usr/bin/env node
// pulumi-resource-kvm: the provider plugin the Pulumi CLI runs for programs in any
// language (YAML, Go, Python, C#). It serves the kinds of the dynamic resources from the
// same core, and prints nothing on stdout before the engine's port (the CLI reads it
// from the first line).
import { main } from "@pulumi/pulumi/provider";
import { configuredHost, serveConfiguration } from "./config-service";
import { logToEngine } from "./engine-log";
import { kvmProvider } from "./provider";

const { version } = require("../../package.json") as { version: string };

const args = process.argv.slice(2);
logToEngine(args);
serveConfiguration();
void main(kvmProvider(version, configuredHost), args);
