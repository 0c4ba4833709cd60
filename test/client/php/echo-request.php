<?php
// How a PHP gateway echoes the request it received into an error: reads the raw
// request body from stdin and prints each echo form as a JSON object of texts.
// Under 2.1 the fields sit in `payload`, a JSON text; the gateway decodes it too.

$raw = stream_get_contents(STDIN);
$body = json_decode($raw, true);
$fields = isset($body['payload']) ? json_decode($body['payload'], true) : $body;

function to_xml(array $data, int $depth = 0): string {
    $out = '';
    foreach ($data as $key => $value) {
        $pad = str_repeat('  ', $depth + 1);
        if (is_array($value)) {
            $out .= "$pad<$key>\n" . to_xml($value, $depth + 1) . "$pad</$key>\n";
        } else {
            $out .= "$pad<$key>" . htmlspecialchars((string) $value, ENT_XML1) . "</$key>\n";
        }
    }
    return $out;
}

function snake_lines(array $data): string {
    $out = '';
    foreach ($data as $key => $value) {
        $snake = strtolower(preg_replace('/(?<!^)[A-Z]/', '_$0', (string) $key));
        $out .= $snake . ': ' . (is_array($value) ? json_encode($value) : (string) $value) . "\n";
    }
    return $out;
}

ob_start();
var_dump($fields);
$dump = ob_get_clean();

echo json_encode([
    // the body as received, and the body quoted inside a JSON string (escaped quotes)
    'raw body' => $raw,
    'escaped JSON' => json_encode($raw),
    'escaped JSON of the fields' => json_encode(json_encode($fields)),
    'print_r' => print_r($fields, true),
    'print_r of the body' => print_r($body, true),
    'var_export' => var_export($fields, true),
    'var_dump' => $dump,
    'XML' => "<request>\n" . to_xml($fields) . "</request>",
    'snake_case' => snake_lines($fields),
    'form fields' => http_build_query($fields),
]);
