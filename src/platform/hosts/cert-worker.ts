// The proxy's certificate process: building and signing leaf certificates (ASN.1 in JavaScript) off the event loop.
import { CertificateAuthority } from './certificates.js';
import type { IssueJob, IssueOutcome } from './cert-issuer.js';

const ca = new CertificateAuthority(process.argv[2]!);

process.on('message', (job: IssueJob) => {
  ca.issue(job.names).then(
    (leaf) => process.send!({ id: job.id, ...leaf } satisfies IssueOutcome),
    (err: Error) => process.send!({ id: job.id, error: err.message } satisfies IssueOutcome),
  );
});
// The server going away (its IPC channel closing) ends this process too.
process.on('disconnect', () => process.exit(0));
