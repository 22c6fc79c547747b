// `node serve-file.js FILE`: test/support's FileServer in a process of its own, so a
// benchmark's measured process (or thread) does not also serve the bytes. Prints the
// server's base URL.
import { FileServer } from "../test/support/http-server";

void FileServer.start(process.argv[2]).then((s) => process.stdout.write(`${s.url("")}\n`));
