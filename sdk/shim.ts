// The provider Pulumi serializes into state: one object whose methods only require the
// installed implementation at run time and delegate (it dispatches on the inputs'
// kvmKind). State stays tiny and free of captured hosts, keys or connections, and
// upgrading pulumi-kvm reaches existing resources.
import * as pulumi from "@pulumi/pulumi";

export const providerShim: pulumi.dynamic.ResourceProvider = {
  async check(olds: any, news: any) {
    return require("pulumi-kvm/provider").check(olds, news);
  },
  async diff(id: string, olds: any, news: any) {
    return require("pulumi-kvm/provider").diff(id, olds, news);
  },
  async create(inputs: any) {
    return require("pulumi-kvm/provider").create(inputs);
  },
  async read(id: string, props: any) {
    return require("pulumi-kvm/provider").read(id, props);
  },
  async update(id: string, olds: any, news: any) {
    return require("pulumi-kvm/provider").update(id, olds, news);
  },
  async delete(id: string, props: any) {
    return require("pulumi-kvm/provider").delete(id, props);
  },
};
