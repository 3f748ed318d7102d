"""One boto3 operation per run, for the e2e suite (test/e2e/clients/boto3.test.ts).

Run with Debian's interpreter in isolated mode so only Debian's python3-boto3 is used:

    /usr/bin/python3 -I boto3-driver.py OPERATION '{"bucket": ..., ...}'

Operations: put {bucket, key, file}, get {bucket, key, file}, list {bucket, prefix},
copy {bucket, source, key}, delete {bucket, key}, create-bucket {bucket}, delete-bucket {bucket},
presign {bucket, key, expires} (SigV4),
presign-default {bucket, key, expires} (the library's default signer), version.
Credentials, region and config files come from the environment (AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY, AWS_CONFIG_FILE, ...); E2E_ENDPOINT is the storage endpoint and
E2E_ADDRESSING is "path" or "virtual". Multipart transfers use 8 MiB parts above 8 MiB.

Prints one JSON line: {"ok": result} or {"error": {"code", "message", "status", "operation"}}
(an S3 error document the service answered); exits 0 and 3 respectively.
"""

import json
import os
import sys

import boto3
import botocore
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from botocore.exceptions import ClientError

MIB = 1024 * 1024
TRANSFER = TransferConfig(multipart_threshold=8 * MIB, multipart_chunksize=8 * MIB)


def client(signature_version=None):
    options = {"s3": {"addressing_style": os.environ.get("E2E_ADDRESSING", "path")}}
    if signature_version is not None:
        options["signature_version"] = signature_version
    return boto3.session.Session().client("s3", endpoint_url=os.environ["E2E_ENDPOINT"], config=Config(**options))


def run(operation, args):
    # boto3 1.26 presigns with SigV2 unless told otherwise; "presign" asks for SigV4 as users must,
    # "presign-default" keeps the library's default.
    s3 = client("s3v4" if operation == "presign" else None)
    if operation == "put":
        s3.upload_file(args["file"], args["bucket"], args["key"], Config=TRANSFER)
        return None
    if operation == "get":
        s3.download_file(args["bucket"], args["key"], args["file"], Config=TRANSFER)
        return None
    if operation == "list":
        objects = []
        pages = s3.get_paginator("list_objects_v2").paginate(Bucket=args["bucket"], Prefix=args["prefix"])
        for page in pages:
            objects.extend({"key": item["Key"], "size": item["Size"]} for item in page.get("Contents", []))
        return objects
    if operation == "copy":
        source = {"Bucket": args["bucket"], "Key": args["source"]}
        s3.copy(source, args["bucket"], args["key"], Config=TRANSFER)
        return None
    if operation == "delete":
        s3.delete_object(Bucket=args["bucket"], Key=args["key"])
        return None
    if operation == "create-bucket":
        s3.create_bucket(Bucket=args["bucket"])
        return None
    if operation == "delete-bucket":
        s3.delete_bucket(Bucket=args["bucket"])
        return None
    if operation in ("presign", "presign-default"):
        return s3.generate_presigned_url(
            "get_object", Params={"Bucket": args["bucket"], "Key": args["key"]}, ExpiresIn=args["expires"]
        )
    if operation == "version":
        return {"boto3": boto3.__version__, "botocore": botocore.__version__}
    raise SystemExit(f"unknown operation {operation!r}")


def client_error(error):
    """The ClientError behind an exception (boto3's transfer manager wraps it in S3UploadFailedError)."""
    while error is not None and not isinstance(error, ClientError):
        error = error.__cause__ or error.__context__
    return error


def main():
    operation, args = sys.argv[1], json.loads(sys.argv[2] if len(sys.argv) > 2 else "{}")
    try:
        result = run(operation, args)
    except Exception as caught:  # noqa: BLE001 - anything that is not an S3 error document is re-raised
        error = client_error(caught)
        if error is None:
            raise
        details = error.response.get("Error", {})
        print(
            json.dumps(
                {
                    "error": {
                        "code": details.get("Code"),
                        "message": details.get("Message"),
                        "status": error.response.get("ResponseMetadata", {}).get("HTTPStatusCode"),
                        "operation": error.operation_name,
                    }
                }
            )
        )
        sys.exit(3)
    print(json.dumps({"ok": result}))


if __name__ == "__main__":
    main()
