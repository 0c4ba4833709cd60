/** `npx merchant-gateway <command>`: filled in with the sandbox work. */
process.stderr.write("merchant-gateway: no commands yet\n");
process.exitCode = 2;
