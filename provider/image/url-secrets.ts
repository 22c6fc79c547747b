// Whether an image URL carries credentials (user:password@, or a query such as a signed
// token): the source holding it is then stored as a secret, in every language.
export function urlHasSecrets(url: string): boolean {
  try {
    const u = new URL(url);
    return !!(u.username || u.password || u.search);
  } catch {
    return false;
  }
}
