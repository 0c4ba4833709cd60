<?php
// An independent reference for D3 in the gateway's own language: PHP json_encode
// (default flags) over a message that ksort(SORT_STRING) and trim() canonicalized,
// signed with openssl_sign(OPENSSL_ALGO_MD5). Reads a JSON request on stdin:
//   { "fields": {...}, "privateKey": "path", "publicKey": "path", "signature": "base64 to verify" }
// and prints { "canonical", "signature", "verified" }.

// Numbers become strings as ECMAScript writes them; for the plain integers and
// short decimals used here, PHP's shortest round-trip form is the same text.
ini_set('precision', '-1');
ini_set('serialize_precision', '-1');

function canonical($value) {
    if (is_array($value)) {
        // json_decode(..., true) gives arrays for objects too; lists keep their order.
        if (!array_is_list($value)) {
            ksort($value, SORT_STRING);
        }
        foreach ($value as $key => $item) {
            $value[$key] = canonical($item);
        }
        return $value;
    }
    if (is_string($value)) {
        return trim($value);
    }
    if (is_int($value) || is_float($value)) {
        return (string) $value;
    }
    return $value;
}

$request = json_decode(stream_get_contents(STDIN), true, 512, JSON_THROW_ON_ERROR);
$fields = $request['fields'];
unset($fields['signature']);
$text = json_encode(canonical($fields), JSON_THROW_ON_ERROR);

$privateKey = openssl_pkey_get_private(file_get_contents($request['privateKey']));
openssl_sign($text, $signature, $privateKey, OPENSSL_ALGO_MD5) or exit(2);
$publicKey = openssl_pkey_get_public(file_get_contents($request['publicKey']));
$verified = openssl_verify($text, base64_decode($request['signature'], true), $publicKey, OPENSSL_ALGO_MD5);

echo json_encode(['canonical' => $text, 'signature' => base64_encode($signature), 'verified' => $verified === 1]);
