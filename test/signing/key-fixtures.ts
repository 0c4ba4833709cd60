import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { keyPath } from "../support/vectors.js";

/** Runs the `openssl` CLI; throws with its stderr when it fails. */
export function openssl(args: string[], input?: string | Uint8Array): Buffer {
	return execFileSync("openssl", args, { input, stdio: ["pipe", "pipe", "pipe"] });
}

/** The base64 body of a PEM block, without armour, as one line. */
export function pemBody(pem: string): string {
	return pem
		.split(/\r?\n/)
		.filter((line) => line !== "" && !line.startsWith("-----"))
		.join("");
}

/** Every key format merchants meet, written by the `openssl` CLI from one RSA-2048 key (the vectors' merchant key). */
export interface KeyFixtures {
	dir: string;
	passphrase: string;
	pkcs8Pem: string;
	pkcs1Pem: string;
	encryptedPkcs8Pem: string;
	/** OpenSSL's legacy encrypted PKCS#1 (`Proc-Type: 4,ENCRYPTED`). */
	encryptedPkcs1Pem: string;
	pkcs8Der: Uint8Array;
	pkcs1Der: Uint8Array;
	encryptedPkcs8Der: Uint8Array;
	spkiPem: string;
	pkcs1PublicPem: string;
	spkiDer: Uint8Array;
	pkcs1PublicDer: Uint8Array;
	certificatePem: string;
	certificateDer: Uint8Array;
	ecPrivatePem: string;
	ecTraditionalPem: string;
	ecPublicPem: string;
	ecCertificatePem: string;
	weakPrivatePem: string;
	weakPublicPem: string;
	/** 4104 bits: over the 4096-bit signing limit. */
	largePrivatePem: string;
	largePublicPem: string;
	cleanup(): void;
}

/** Creates every fixture in a fresh temp dir. */
export function makeKeyFixtures(): KeyFixtures {
	const dir = mkdtempSync(join(tmpdir(), "mg-keys-"));
	const at = (name: string) => join(dir, name);
	const text = (name: string) => readFileSync(at(name), "utf8");
	const bytes = (name: string) => new Uint8Array(readFileSync(at(name)));
	const passphrase = "correct horse battery staple";
	const source = keyPath("merchant-private");

	openssl(["pkey", "-in", source, "-out", at("pkcs8.pem")]);
	openssl(["rsa", "-in", source, "-traditional", "-out", at("pkcs1.pem")]);
	// Encrypted PKCS#8 (AES-256-CBC, PBKDF2), as PEM and as DER.
	const encryptedPkcs8 = ["pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in", source, "-passout", `pass:${passphrase}`];
	openssl([...encryptedPkcs8, "-out", at("enc.pem")]);
	openssl([...encryptedPkcs8, "-outform", "DER", "-out", at("enc.der")]);
	openssl([
		"rsa",
		"-in",
		source,
		"-traditional",
		"-aes256",
		"-passout",
		`pass:${passphrase}`,
		"-out",
		at("enc-pkcs1.pem"),
	]);
	openssl(["pkey", "-in", source, "-outform", "DER", "-out", at("pkcs8.der")]);
	openssl(["rsa", "-in", source, "-traditional", "-outform", "DER", "-out", at("pkcs1.der")]);
	openssl(["pkey", "-in", source, "-pubout", "-out", at("spki.pem")]);
	openssl(["pkey", "-in", source, "-pubout", "-outform", "DER", "-out", at("spki.der")]);
	openssl(["rsa", "-in", source, "-RSAPublicKey_out", "-out", at("pkcs1pub.pem")]);
	openssl(["rsa", "-in", source, "-RSAPublicKey_out", "-outform", "DER", "-out", at("pkcs1pub.der")]);
	openssl(["req", "-x509", "-new", "-key", source, "-subj", "/CN=gateway.test", "-days", "2", "-out", at("cert.pem")]);
	openssl(["x509", "-in", at("cert.pem"), "-outform", "DER", "-out", at("cert.der")]);

	openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", at("ec.pem")]);
	openssl(["ec", "-in", at("ec.pem"), "-out", at("ec-traditional.pem")]);
	openssl(["pkey", "-in", at("ec.pem"), "-pubout", "-out", at("ec-pub.pem")]);
	openssl([
		"req",
		"-x509",
		"-new",
		"-key",
		at("ec.pem"),
		"-subj",
		"/CN=ec.test",
		"-days",
		"2",
		"-out",
		at("ec-cert.pem"),
	]);

	// Kept as files: generating a 4104-bit key takes seconds on a busy machine, and mutation testing runs this
	// fixture once per mutant.
	const weak = fileURLToPath(new URL("./size-keys/rsa-1024.pem", import.meta.url));
	const large = fileURLToPath(new URL("./size-keys/rsa-4104.pem", import.meta.url));
	openssl(["pkey", "-in", weak, "-out", at("weak.pem")]);
	openssl(["pkey", "-in", weak, "-pubout", "-out", at("weak-pub.pem")]);
	openssl(["pkey", "-in", large, "-out", at("large.pem")]);
	openssl(["pkey", "-in", large, "-pubout", "-out", at("large-pub.pem")]);

	return {
		dir,
		passphrase,
		pkcs8Pem: text("pkcs8.pem"),
		pkcs1Pem: text("pkcs1.pem"),
		encryptedPkcs8Pem: text("enc.pem"),
		encryptedPkcs1Pem: text("enc-pkcs1.pem"),
		pkcs8Der: bytes("pkcs8.der"),
		pkcs1Der: bytes("pkcs1.der"),
		encryptedPkcs8Der: bytes("enc.der"),
		spkiPem: text("spki.pem"),
		pkcs1PublicPem: text("pkcs1pub.pem"),
		spkiDer: bytes("spki.der"),
		pkcs1PublicDer: bytes("pkcs1pub.der"),
		certificatePem: text("cert.pem"),
		certificateDer: bytes("cert.der"),
		ecPrivatePem: text("ec.pem"),
		ecTraditionalPem: text("ec-traditional.pem"),
		ecPublicPem: text("ec-pub.pem"),
		ecCertificatePem: text("ec-cert.pem"),
		weakPrivatePem: text("weak.pem"),
		weakPublicPem: text("weak-pub.pem"),
		largePrivatePem: text("large.pem"),
		largePublicPem: text("large-pub.pem"),
		cleanup: () => rmSync(dir, { recursive: true, force: true }),
	};
}
