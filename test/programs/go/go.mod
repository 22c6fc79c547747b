module pulumi-kvm-go

go 1.24

require (
	github.com/pulumi/pulumi/sdk/v3 v3.274.1
	pulumi-kvm/sdk/go/kvm v0.0.0
)

// the Go SDK generated from the plugin's schema (scripts/gen-sdk sdk, or pulumi package gen-sdk)
replace pulumi-kvm/sdk/go/kvm => ./sdk/go/kvm
