"""The media store: served bytes are 1024x1024 sRGB JPEG with no metadata at all; bad input is refused."""

import io
import struct
import zlib

import pytest
from PIL import Image, ImageCms
from PIL.PngImagePlugin import PngInfo

from arena.media.images import ImageRejected
from arena.media.store import MEDIA_ID, MediaStore, normalize_image

SECRET = "model=secret-model-7;provider=acme"


def _jpeg_segments(data: bytes) -> list[int]:
    """The marker bytes of every segment before the image data (SOS)."""
    assert data[:2] == b"\xff\xd8"
    markers, pos = [], 2
    while pos + 4 <= len(data):
        assert data[pos] == 0xFF
        marker = data[pos + 1]
        markers.append(marker)
        if marker == 0xDA:  # start of scan: entropy-coded data follows
            break
        pos += 2 + struct.unpack(">H", data[pos + 2 : pos + 4])[0]
    return markers


def _icc() -> bytes:
    return ImageCms.ImageCmsProfile(ImageCms.createProfile("LAB")).tobytes()


def _jpeg_with_everything() -> bytes:
    image = Image.new("RGB", (1536, 1024), (200, 40, 40))
    exif = Image.Exif()
    exif[0x010F] = SECRET  # Make
    exif[0x0131] = "secret-software"  # Software
    out = io.BytesIO()
    image.save(
        out, "JPEG", exif=exif, comment=SECRET.encode(), xmp=f"<x:xmpmeta>{SECRET}</x:xmpmeta>".encode()
    )
    data = out.getvalue()
    # Splice in an APP11 (JUMBF / C2PA manifest) segment right after SOI.
    payload = b"JP\x00\x00" + b"jumb" + b"c2pa" + SECRET.encode()
    app11 = b"\xff\xeb" + struct.pack(">H", len(payload) + 2) + payload
    return data[:2] + app11 + data[2:]


def _png_with_everything() -> bytes:
    image = Image.new("RGBA", (800, 800), (10, 120, 200, 128))
    info = PngInfo()
    info.add_text("parameters", SECRET)
    info.add_itxt("Comment", SECRET, lang="en")
    out = io.BytesIO()
    image.save(
        out,
        "PNG",
        pnginfo=info,
        icc_profile=ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes(),
    )
    data = out.getvalue()
    chunk = b"caBX" + b"c2pa" + SECRET.encode()
    crc = struct.pack(">I", zlib.crc32(chunk))
    cabx = struct.pack(">I", len(chunk) - 4) + chunk + crc
    return data[:33] + cabx + data[33:]  # after the IHDR chunk


@pytest.mark.parametrize("make", [_jpeg_with_everything, _png_with_everything])
def test_served_bytes_carry_no_metadata_of_any_kind(make):
    original = make()
    assert SECRET.encode() in original
    served = normalize_image(original)
    for marker in (
        SECRET.encode(),
        b"secret",
        b"Exif",
        b"c2pa",
        b"jumb",
        b"xmpmeta",
        b"ICC",
        b"iCCP",
        b"caBX",
    ):
        assert marker not in served
    # Only JFIF APP0, quantisation and Huffman tables, frame header and scan: no APP1-15 (EXIF, XMP, ICC,
    # C2PA/JUMBF) and no COM segment.
    assert set(_jpeg_segments(served)) <= {0xE0, 0xDB, 0xC4, 0xC0, 0xDA}
    with Image.open(io.BytesIO(served)) as im:
        assert im.format == "JPEG" and im.size == (1024, 1024) and im.mode == "RGB"
        assert not im.info.get("icc_profile") and not im.info.get("exif") and not im.getexif()


def test_non_srgb_profiles_are_converted_to_srgb_pixels():
    # A pure-red image tagged with an sRGB profile keeps its colour; with no profile, pixels are taken as sRGB.
    out = io.BytesIO()
    Image.new("RGB", (64, 64), (255, 0, 0)).save(
        out, "PNG", icc_profile=ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    )
    with Image.open(io.BytesIO(normalize_image(out.getvalue()))) as im:
        r, g, b = im.getpixel((512, 512))
    assert r > 240 and g < 15 and b < 15


def test_non_square_images_are_centre_cropped_and_transparency_flattened_on_white():
    image = Image.new("RGBA", (300, 100), (255, 0, 0, 255))
    image.paste((0, 0, 255, 255), (100, 0, 200, 50))
    image.paste((0, 0, 0, 0), (100, 50, 200, 100))
    out = io.BytesIO()
    image.save(out, "PNG")
    with Image.open(io.BytesIO(normalize_image(out.getvalue()))) as im:
        r, _, b = im.getpixel((512, 200))
        assert (
            b > 230 and r < 25
        )  # the blue top of the middle third survives the centre crop; red sides do not
        assert min(im.getpixel((512, 900))) > 240  # the transparent bottom becomes white


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"this is not an image at all", "not an image"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, "not an image"),
        (b"", "not an image"),
    ],
)
def test_non_images_are_refused_with_a_reason(data, reason):
    with pytest.raises(ImageRejected, match=reason):
        normalize_image(data)


def test_formats_outside_png_jpeg_webp_are_refused():
    out = io.BytesIO()
    Image.new("RGB", (8, 8)).save(out, "GIF")
    with pytest.raises(ImageRejected, match="unsupported image format GIF"):
        normalize_image(out.getvalue())


def test_decompression_bombs_are_refused_before_decoding():
    out = io.BytesIO()
    Image.new("1", (20_000, 20_000)).save(out, "PNG")  # tiny file, 400 megapixels
    assert len(out.getvalue()) < 200_000
    with pytest.raises(ImageRejected, match="too large"):
        normalize_image(out.getvalue())


def test_the_store_keeps_the_original_apart_and_serves_by_opaque_id(tmp_path):
    store = MediaStore(tmp_path)
    original = _jpeg_with_everything()
    a = store.store(original)
    b = store.store(original)
    assert a.media_id != b.media_id and MEDIA_ID.match(a.media_id)
    assert a.original_sha256 == b.original_sha256
    assert (tmp_path / "originals" / a.original_sha256).read_bytes() == original
    assert store.served_path(a.media_id).read_bytes()[:2] == b"\xff\xd8"
    assert (a.original_width, a.original_height) == (1536, 1024)
    for bad in ("../originals/" + a.original_sha256, a.media_id[:-1], a.media_id + ".jpg", "x" * 32):
        assert store.served_path(bad) is None
