// An Image, an overlay Volume and a Domain with cloud-init that waits for its address,
// as a Go program writes them with the generated SDK. The lab's host, key and image come
// from stack config; `autostart` is the update step.
package main

import (
	"pulumi-kvm/sdk/go/kvm"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		prefix := cfg.Require("prefix")
		host := kvm.HostArgs{
			Address:        pulumi.String("127.0.0.1"),
			Port:           pulumi.IntPtr(cfg.RequireInt("port")),
			User:           pulumi.StringPtr("root"),
			PrivateKeyPath: pulumi.StringPtr(cfg.Require("privateKeyPath")),
			KnownHostsPath: pulumi.StringPtr(cfg.Require("knownHostsPath")),
		}
		image, err := kvm.NewImage(ctx, "image", &kvm.ImageArgs{
			Host:   host,
			Name:   pulumi.StringPtr(prefix + "-image"),
			Source: kvm.ImageSourceArgs{Path: pulumi.StringPtr(cfg.Require("imagePath"))},
		})
		if err != nil {
			return err
		}
		disk, err := kvm.NewVolume(ctx, "disk", &kvm.VolumeArgs{
			Host:         host,
			Name:         pulumi.StringPtr(prefix + "-disk"),
			BaseImage:    image.Name,
			SourceFormat: image.Format,
		})
		if err != nil {
			return err
		}
		vm, err := kvm.NewDomain(ctx, "vm", &kvm.DomainArgs{
			Host:            host,
			Name:            pulumi.StringPtr(prefix + "-vm"),
			Type:            pulumi.StringPtr("qemu"),
			Memory:          pulumi.Int(256),
			Autostart:       pulumi.BoolPtr(cfg.GetBool("autostart")),
			ShutdownTimeout: pulumi.StringPtr("10s"),
			Disks: kvm.DiskArray{kvm.DiskArgs{
				Volume:  disk.Name,
				Format:  disk.Format,
				Backing: disk.Backing,
			}},
			NetworkInterfaces: kvm.NetworkInterfaceArray{kvm.NetworkInterfaceArgs{Network: pulumi.StringPtr(cfg.Require("network"))}},
			CloudInit:         kvm.CloudInitArgs{Hostname: pulumi.StringPtr(prefix + "-vm")},
			WaitForIp:         kvm.WaitForIpArgs{Timeout: pulumi.StringPtr("3m")},
		})
		if err != nil {
			return err
		}
		ctx.Export("ip", vm.IpAddress)
		ctx.Export("state", vm.State)
		return nil
	})
}
