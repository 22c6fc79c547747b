// The error of an object that exists but did not finish (a VM that booted but got no
// address): Pulumi's dynamic-provider host sees its `id` and records `properties` under
// it as "created but failed to initialize", and the next `up` continues from there.
export class PartialInitError<O> extends Error {
  constructor(
    message: string,
    readonly id: string,
    public properties: O,
    readonly reasons: string[],
  ) {
    super(message);
    this.name = "PartialInitError";
  }
}
