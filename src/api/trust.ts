// The certificates orc trusts for an https request when a CA file of the user's is named (a profile's
// --ca-file, or the CA a sandbox started with --tls made): Node's own (with NODE_EXTRA_CA_CERTS, where
// Node can say them) and that file's. Without one, Node's defaults apply and nothing here is needed.
export function certificatesWith(pem: string): string[] {
  const tls = process.getBuiltinModule('node:tls') as typeof import('node:tls') & {
    getCACertificates?: (kind: string) => string[];
  };
  return [...(tls.getCACertificates?.('default') ?? tls.rootCertificates), pem];
}
