import VouchTestSupport
import _CryptoExtras

/// RSA keys for the key-source tests, made once with `openssl genpkey` (test material, never a
/// real key): generating them in a debug build under a loaded suite takes seconds, and a
/// generation behind a `static let` holds every thread that waits for it.
package enum TestRSAKeys {
    package static let pems: [String] = [
        """
        -----BEGIN PRIVATE KEY-----
        MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQCk4+eDniBU7Dwy
        Sik6v59NyBTlVHQDr5G0Dvp6s/wDbpjpiYD7+MJiSeRpxpJyzM5X7PgXe5ywMPH5
        69cjo1glAVNj+ZV/tPtcMQ/+jhsDTi+cpIWgkjeQHkx6w+hdw9223iiQ6zbJkFcy
        vE7ssWOgnYCmDc0SFyzeL83j1/iPAA159ZnySC4sB9/mmzt4a44WAQ/MM9khk5O5
        5lgmhnj+Qavb7QD9X0SI8hUMeCJ3ulZAtS6ezrKUg7ihdTxxNlZPSEQe1Ppb91xB
        M+QL5SY8oOqL17k129PfQFMuM47FtofrTbN0gxoWii9dprRJRm4GV+L/7zdvDrjg
        A86fhTmjAgMBAAECggEAJV2+M73sPsJwG8dhk34kOCisz5F1XvZ08tRoH9FUvWRd
        Q6MU90TWrBZprCzDOD/ATP2W9R9ekTDuTQAMd3eHPI+R2biQD+owAiLeKIYEihm4
        QWupGou4CrFLDJEDwefmgQ/UKo8bEc9ja0xwKEREuvumUTsUa1KUKN+1bToeii0Q
        PMlRoe1We33O+dOxjnSoCWZjYmeBhoRk88mNWdtOvwXMJw9//XdjHaUMKpTivuCl
        CGysKGVIh7SbG6Yq4mSl7b1QfLbr9LHBdU3LN6li2aH3dOeoJbrGqHvHVXnCqhno
        DrHm4zXlsabR808LlZlvRJX+zl6ZNQvKHp/0iv99LQKBgQDR7V3KWQCt6fYqvL0a
        Sv+WqPi6mGTRDcXQuSCZ8P9K/tn0ew95ciaGe2IIaoHJ5a8rVpPRNGZUIg29Za0s
        O+0gra88UfgYhi15AF8gEd1sVsK/IeqGLCNwBnmBtS66ZeJpsGPo2AoYBMrIh4xy
        yle2xnS0JGmcVFM5ddM6ByjObQKBgQDJFCndNkTHcUkpIkWQanbKqxIpbFTupuQi
        5B2FiwFST55E99gov2+DNn1pEvyJguTXjcCEAA3xeRYVtKUSLBJzGfhq+YJQerzL
        GBhRdhpDwvuQ+DouKWmTB4rlV80J4Z/VppHRw0TbtPNIxbFVilN2K3Kz6ih0P7/m
        JF5k87feTwKBgQCT9IX8DYqrCJCVQnzNQTquhtz3Nl0n8lsPZssRdIeZ5dDbvLgF
        UmzQr7lCUT60e4tgMh7wfcv5VB728+h/mqTgOUmea+896aO2+ooQ4kZ7CxMq/s56
        TjWTyRxuTLJocVKIRufDvjAvCYGan95fMTls+qZaKKe+pLgbcW20IkOiaQKBgQCf
        EPhdKoUWUSPTCm2FZPM8OEBRzIUTlap7f4FrFx+ggaNuY7H36hjI794dtQtZrNZj
        PpvA0Fo3X9Z8rT64NW0S6MR/u4m/KJkZAKKcLpVwbVqcwAEma1Q9H4ZdDywAWSAb
        330TNynNtEOQmfNC+/4ySQSgFuiRrayc3sBdk/8sOQKBgDtrTyVkeEtMowwOWsLG
        bp3/e1HKbPWS42Y12yhtdsdyitatfCxWbnZ0LITb/ky3YLwNQDOdehyoKJwEoiDr
        iOQ6XmqGMe7AzDaorqSPuetOD5EUBWUsZLb9CwzT5x9VikP95T9tWc/BRx0C6hwC
        j0THAxk55cNNpOoeADVHrWYv
        -----END PRIVATE KEY-----
        """,
        """
        -----BEGIN PRIVATE KEY-----
        MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQCOmMAcTa0KFxEK
        u9l8vT2dMD8rqAEO9SxV10bSo0LSgKEQOq6h8tSXkndWvTlgbNSOFabO+ILXU/xT
        vqLA5DYfL6wJUzoQ2px2mHowNMPpPgGduRNdzO7ZzwkBLQ2BuDWLqJ6OO00L9CgD
        gZeY29CQMx9p01jzL+eDAIm71+EmvsJ1LT9j7DnvqMW3Hciw/5d8p/7bSyZSv961
        Rag8fL+lnZAgbJrz8J8fOD1Dxp9tp8AmUispCJG893Lhib5L8u+KnEVOtNsnvoFK
        9s+zKHDRFdNQ2CnxwAVloasJHD1jqto62QJ0wUK/Q1ehi61fVVn8TbkXRZm5Fxje
        +VSCosNlAgMBAAECggEADEd8F5PayEknNwjpGBRFt4D9l5lOigazzCqPFzlm2jCo
        bfjXq+t4whqjOy1tQO/uN9QGesEspzU8v8tlQX4FaRcWVfE8SVJB8fZ8YyVQD4g+
        5GGZGNU6ZjgtWtQR2y9NMRsSmEXkAxkBzxd8QfX/1kMIu/iuqrZf1ciYk7vp0Aex
        V+1yLzG5k5cxm+4jP2lOaZ2XTEEZ21xmhE+0VJ3zBaK2TLPts45N+6iJFBCZVn8L
        g3G9iuquY9sqKXTYujURcs8DOSIpPBDhkSMToRbtzX5ksM4Z8eoEjAC0tcUH7Hu9
        eyOkycoK4IxKysmInwBlpwLCUjJtEceRyo0dgvw4qwKBgQDAoz8mVHxeMRMH11gP
        0lf1XqQ3vv1fVd+unMQwa/WL6RtbjFwQTvR3Kj41VnLQMLgq7VvKgHr1s1ue+sl+
        tHLhh2crODSNk3EwdQEjZF2fbBE/j05WUiAFwqRXqfmVuMVtV06rGX6o1Za+l4RR
        xVU3jyeNczAu380tYTCBl+u+2wKBgQC9f+FBYXSWH06VHF1b5fSko2yLiOHVZFWo
        egYZj4MFwhmmKyHULUZMYl25yV65NeMtDKHecJycQz0Q3L+PRH9Gyd8pjLg3tF4d
        x7Wh9S1ZUzokKBxyncoeb73madRxNb3ZQ5Dga6qKX0o83DLLx63dGEftaAkz85ek
        8rWFANF6vwKBgFYS2y2iRGvF263+P3/aSaj+X7v037uQYEDiFRtZsb6RKsMuJRi4
        Xq08N82XUffKPRAZPJFv9QEB4idYAV5W/Jne6W87TugPgFzZeue4eci4/b/7pVIW
        oe5Q+SOedEG87KIdh64V1y1TOmbwxpPO63PGyDKAzH+1SjVDnuvY2OJPAoGAQr3J
        bieO0ljQaoAE+ZryIRJV5ocdUvT1nlLr1xDOirakJfxG+92+RqTWcdrUe9LY4kLy
        t89duUONPGUjKqhrU1lCOfYP476o70ApXpNll3JSpe1ip5OfXjzo20AmzICrDtxX
        KFODSxzonqrHUTJQr/AfVSQxKZT/sd6xw9hX7y0CgYA/Vq0OtYtu5KOGP2Kuwlnn
        DyStolYgUCNjwElTFyJ84gSIqpmW6qIu/gEGKMIqe/r8DLEsbzy7wl1loc056j5Z
        HG36UVzh/ptRyvoGUkV/cyCsCwwj3w9cNS+hS1oTaA8v8nn/ujGd0uKVzPw/3uBk
        q6xgYOSkNf8jhZ3CEzmy5w==
        -----END PRIVATE KEY-----
        """,
        """
        -----BEGIN PRIVATE KEY-----
        MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQCxNIQIVjW+sMMo
        ydprPLgHoFk4EQi/LNcqdfORd0y9bbUTVTx+ZxpsfMlekS9o9NeyqlbaPxhdsDvM
        txOQGCMnnj/Bts7P/PVyzIU3RQe+3Dn0bKwQ4DXhKWN7m4uZ3ElisMbPZeNvj2Yt
        Bhk7n5vH0Wh2YRzqqVcXFlMiuI44/rVSIHFF5hur3VOuMpo7Nc0cAkj8+lrINU1L
        8mDFG+QmgjUo8noiWxsoQLEpq3MyvhoKB27lWlyJczyH5UU9GCXzAVJKdo7p7AkQ
        jZdmb7sOvVBMoLl+ay/eixsRQz9r4T4WVuGINQF7UtwvGuntY1TmTx4+LPjc9QTD
        FFcxUIhNAgMBAAECggEAEM+8JPRU1fn8Ed8QjzLr/KE8RaLsEwMEiL029dp9F82U
        K7je69kJOzidfBDHECyGWCdr5PmubJj/G11VCEsZ7rTHNLAMr9O+T31SuBse8H8B
        KoyyyEkVI37jNsNbe6XX+npt6hgu+xL+LRBSjYMHau4VfIGbFjIploGiMn2S1JpB
        AbZZty+A0tIZD1Zkv8krATrjNQn8MF86bwOlGcTPXZqd5VT0R0ZvFr2b2L5+ztW3
        8kM3SxlvABCgiqGBjg1g9yVbZ4ObgQbVFL4mNd9Av7S6rFTnHdwB/2A8Ac0M5whF
        txXzdJNccYF9Zh61IIySeyDh3wkAxNA7iqTWPkK1KwKBgQDk8QIGCM1SsK1TnQ+M
        nfOMUmR67HmTXNTT9opH6kaBSWuSRlnyhhiHgQUyhJcxxY/b7Zi9RfTqEtl9rljL
        nvgRpg4/IQM8kRdbTwGjjmLkxdV2ydTBb+KivS0kFiV/SqEFS3OdQMwZI+jjwKVM
        CNdv9P5fSEKMXEjL9nKjNM+U7wKBgQDGJiSOi0HAwO3rtYGAxVhfR/vzveZd4CEi
        tsJy7T32fzZR20sotxjKaFn1vzsu/Mt5lnyBZRBWDZ83n5gepB5ufc9VapZhc856
        Q8VZ5KFeHq65vhrcVfchV2C/tAbZbY9T5BRYNMP2nR/caHGST/DfYDk3Bxcq5jVB
        WRokWLHOgwKBgBdOsfYLT1vrwLmSc9LNAc53VONuz7HA8anin5FSuHrRDrKFlwKp
        xDWHXRAXj4zxoAOz3KjoRlbONHYnGcMhHAAv96NVqQ6xdr9E+9W62TaRLXo6cf5/
        dYM73yydVJPw9ROk6tBHmH+2uC73ndxvyf8L4hmxMZU4j/Cz1lfnOHrhAoGBAIsH
        +F6MF3bH6CibEmLoFTnFqGM9u4Xi3V0eHxHEpNVwLQ0CcZn/3sUmsvhbVYuClMKb
        dIDWCMBYjn7Y3EOjpDaiz/d+8kUunJHtO2v3n8IKhU6OtQokx2H9jUT1bFjjJs4W
        GrBJVbaUSOa94fJnZPtW6M5Ti03ueS+A9XbLRPdBAoGBAIeaZ+XVdr0pj44IQDeP
        AKk6mjS1yvbLGmnLNvjArLZqof0+pZ0o+vDL0lSS3tUI1L4T78IyZmAQi5NY24Gt
        VIAF+4h2FbSboGN01CVyWol3yTsDa9cvH2aGVgiWCmQh7JF7r0Rm8BrHkDblJYoA
        24JzYCbp+3eojeswnaD4s3C8
        -----END PRIVATE KEY-----
        """,
        """
        -----BEGIN PRIVATE KEY-----
        MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQC/KH/tORbd88yE
        0PsjLMu4kzyRnv5A3miwzGgi1PB/9qv0l0kmsYt4A9s1Z8CqeSMKqHkjq9Y/IzR8
        W1WuFWkpmtc02ArM92kvc1iwX/hWRBOxDjF0W0lWo4Og4OxxCdkUTQ2EW9m92L83
        B55Yo5KkN6QOBvcEf/FOiJUXaYKjkpAS6UM1Ti8d44CVtsaFWcSOy7TVHaoDeNw9
        tfTuWIpLlJ7KxfgzcLD8caV2D2fT+a6Zsy4mYfNs99zQmBVu2peTJu83bj7h4NS6
        hGX2vXeVgXZpRCrh5NcX2l2PQMVUYpDIcq9iXIbTUwXy7HgQZlJxK7qOESWiOvzH
        de47j+67AgMBAAECggEARz7m/xlqBmtZbJ8fGusVOsPVrUie5rp+NnbY0TKgOHFN
        ganpH7zIiICXcP4sdt0TTGOiUsM25O1QIJFCC9H7EgCd+RoUXHRSBddt1L7QJgbV
        eAYcNIvZd6sV4h4ywaaz+7cENLKvIuznx7DVOaAthXsfcAL0if7Nh0Gsn785a5EN
        nBmcRxk/P2PPuRwT7snzc9kPNNAt+edrDWqtUN7MOzQL1JJvNo6hvhaQN6Ss1CGG
        pxMUiCvsHsQKnia5jylCfU5x16IRFhg+adfZ12w7uaJstPtID0i8CpGS36rJxpTs
        rjmSh/uhcICSe9ENLwF+ud3zIhIUnQ+gptBTX4oZ0QKBgQDkAY2LwXYopkDoN7al
        WbVqUIrNG2x0jRE8LpCdC2GxykMQbcoViwYB6YeL+WHbNE7LyggkD9Uaf2ROnqs/
        G8mqV+KFPPLO1IC9NQYOk187beioaP7Y11VeSHOB3epL23kTF+HxLqlhqfQWvHOL
        NzVSir0teb6AFL8NJmvX18DdzQKBgQDWoMiQhR70Xv6aft6vd6t0ssr3TQkR+WXq
        1xkoObNm2masmpYZhirqo2W0ePVbkN16cFFvIRbE/JU9IsGOIpL5XLYuAedGoY6/
        EGFQNL/cTNfvu+UuYVTvJNKwVPGtdn6DK2VTAruJJT3IyWUQe2HybcAvTGcI6wgg
        x1NNn842pwKBgAQ9rydRUuRQq1ZmauRKdeBjXSGRiAPm99IZv6DcLFYFQBgXIrIh
        4tu4P0gwPEy6fVi3Ck25aapTgkcgFmlXF/ouJk16I74LH9XlHZa50QSm97PiOBNK
        dhEJ4fQhb5E3pNnhENfOmWHyqlKd8Lw/K6O8ZuZopE13lVImS804+yJlAoGAWQZ4
        KvoMzPBaS1s0ozPQOqeu6MVbbck1LSPrm3PTpmYREKdOe2fbhVghZ6qEm2aLd63/
        GUlwWGUswh8YigxtSmHab1r6w6FfxIDW3J4EtyxopVgayBI3WLq9acbSOFFeSKpH
        bRdFEq4P4qkm8p87EYPUo8ndMyXKSU5kj14p+yECgYBiA1No+8LaHCSmdzQ4M2bF
        halWiHEW/OO1/7EtOJVolueTRZL5ciqk3n9S+OieLeZK7QzVNtwuV1P913gWmies
        LbQMiV3sN7saqvze3UMHjfKz0aJd/aS6usjylWig3EfG0Rf1r2pC8FMckRO/DutW
        g6TEXA8tWlUlgFcce2cMsg==
        -----END PRIVATE KEY-----
        """,
    ]

    /// Key `index`, parsed (fast next to generating one).
    package static func key(_ index: Int) throws -> _RSA.Signing.PrivateKey {
        guard pems.indices.contains(index) else { throw TestFailure("there are \(pems.count) test RSA keys, not \(index + 1)") }
        return try _RSA.Signing.PrivateKey(pemRepresentation: pems[index])
    }
}
