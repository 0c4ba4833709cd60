<?php
// The gateway's reference signing form (protocol decisions D3), written independently of the SDK
// in the gateway's own language: json_decode($text, true), unset the signature, ksort(SORT_NATURAL)
// on the top level, trim() on every leaf (array_walk_recursive), json_encode with default flags,
// openssl_sign with MD5.
// stdin:  {"privateKey": "path", "messages": ["<JSON text>", ...]}
// stdout: [{"canonical": "...", "signature": "base64"} or {"error": "..."}, ...] in the same order.
ini_set('precision', '14');
error_reporting(E_ALL & ~E_DEPRECATED); // trim(null) is deprecated since PHP 8.1 and still gives ""

$request = json_decode(stream_get_contents(STDIN), true, 512, JSON_THROW_ON_ERROR);
$key = openssl_pkey_get_private(file_get_contents($request['privateKey']));
$out = [];
foreach ($request['messages'] as $text) {
    $data = json_decode($text, true);
    if (!is_array($data)) {
        $out[] = ['error' => json_last_error_msg()];
        continue;
    }
    unset($data['signature']);
    ksort($data, SORT_NATURAL);
    array_walk_recursive($data, function (&$value) {
        $value = trim($value);
    });
    $canonical = json_encode($data);
    if ($canonical === false) {
        $out[] = ['error' => json_last_error_msg()];
        continue;
    }
    openssl_sign($canonical, $signature, $key, OPENSSL_ALGO_MD5) or exit(2);
    $out[] = ['canonical' => $canonical, 'signature' => base64_encode($signature)];
}
echo json_encode($out);
