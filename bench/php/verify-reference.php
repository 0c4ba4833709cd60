<?php
// The gateway's reference verification of a 2.0 message, timed inside one long-running process:
// json_decode($text, true), unset the signature, ksort(SORT_NATURAL) on the top level, trim() on every
// leaf (array_walk_recursive), json_encode with default flags, openssl_verify (MD5) with a loaded key.
// argv[1]: the public key (PEM file). stdin: first line the message text as a JSON string, then one
// count per line; stdout: for each count, the nanoseconds per verification over that many, one per line.
ini_set('precision', '14');
error_reporting(E_ALL & ~E_DEPRECATED); // trim(null) is deprecated since PHP 8.1 and still gives ""

function verify_reference(string $text, $key): bool
{
    $data = json_decode($text, true);
    $signature = base64_decode($data['signature']);
    unset($data['signature']);
    ksort($data, SORT_NATURAL);
    array_walk_recursive($data, function (&$value) {
        $value = trim($value);
    });
    return openssl_verify(json_encode($data), $signature, $key, OPENSSL_ALGO_MD5) === 1;
}

$key = openssl_pkey_get_public(file_get_contents($argv[1]));
$text = json_decode(fgets(STDIN), false, 512, JSON_THROW_ON_ERROR);
if (!verify_reference($text, $key)) {
    fwrite(STDERR, "the message does not verify with this key\n");
    exit(2);
}
while (($line = fgets(STDIN)) !== false) {
    $count = (int) $line;
    $start = hrtime(true);
    for ($i = 0; $i < $count; $i++) {
        verify_reference($text, $key) or exit(3);
    }
    echo (hrtime(true) - $start) / $count, "\n";
}
