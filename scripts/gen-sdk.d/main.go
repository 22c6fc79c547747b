// gen-sdk: the Go and Python SDKs of a Pulumi package schema, written by Pulumi's own
// code generators (scripts/gen-sdk builds this against the CLI's version of pkg/v3).
// usage: gen-sdk SCHEMA.json OUT_DIR
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	pygen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/blang/semver"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// noPackages: the kvm schema refers to no other package.
type noPackages struct{}

func (noPackages) LoadPackage(pkg string, _ *semver.Version) (*schema.Package, error) {
	return nil, fmt.Errorf("the schema refers to package %q, which this tool does not load", pkg)
}
func (n noPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return n.LoadPackage(d.Name, nil)
}
func (n noPackages) LoadPackageReference(pkg string, v *semver.Version) (schema.PackageReference, error) {
	_, err := n.LoadPackage(pkg, v)
	return nil, err
}
func (n noPackages) LoadPackageReferenceV2(_ context.Context, d *schema.PackageDescriptor) (schema.PackageReference, error) {
	return n.LoadPackageReference(d.Name, nil)
}

func write(dir string, files map[string][]byte) error {
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	raw, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		panic(err)
	}
	pkg, diags, err := schema.BindSpec(spec, noPackages{}, schema.ValidationOptions{})
	if err != nil {
		panic(err)
	}
	if diags.HasErrors() {
		fmt.Fprintln(os.Stderr, diags.Error())
		os.Exit(1)
	}
	goFiles, err := gogen.GeneratePackage("pulumi-kvm", pkg, nil)
	if err != nil {
		panic(err)
	}
	if err := write(filepath.Join(os.Args[2], "go"), goFiles); err != nil {
		panic(err)
	}
	pyFiles, err := pygen.GeneratePackage("pulumi-kvm", pkg, nil, noPackages{})
	if err != nil {
		panic(err)
	}
	if err := write(filepath.Join(os.Args[2], "python"), pyFiles); err != nil {
		panic(err)
	}
}
