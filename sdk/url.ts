// Whether an image URL carries credentials (user:password@, or a query such as a signed
// token), so the SDK stores the source as a secret. Kept here, not imported from the
// provider: the SDK loads no provider code at program time.
export function urlHasSecrets(url: string): boolean {
  try {
    const u = new URL(url);
    return !!(u.username || u.password || u.search);
  } catch {
    return false;
  }
}
