/**
 * True while a process with this pid exists (this one included), whoever owns it: signal 0 checks without
 * sending anything, and EPERM means the process exists but belongs to another user.
 */
export function isProcessAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}
